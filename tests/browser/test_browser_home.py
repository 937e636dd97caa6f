"""The home page in the browser: tracks as learning paths with the learner's progress, and the filter, which
works as a plain form without JavaScript and as the learner types with it."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from tests.browser.browser_support import Learner
from tests.browser.test_browser_pages import open_problem, reference_code, run_tests, type_code

pytestmark = pytest.mark.browser


def test_the_track_shows_the_learners_progress(learner: Learner) -> None:
    page = learner.page
    open_problem(learner)
    type_code(page, reference_code())
    run_tests(page)
    learner.goto("/")
    track = page.locator(".track[data-track='self-supervised']")
    assert track.locator("h2").inner_text() == "Self-supervised learning"
    steps = track.locator(".problem-card")
    assert steps.first.locator("a").first.get_attribute("href") == "/problems/moco"
    assert steps.first.locator(".badge--state").inner_text().strip().endswith("Solved")
    assert "1 of" in track.locator(".track__progress").inner_text()
    width = track.locator(".meter__bar").evaluate("bar => bar.style.width")
    assert width not in ("", "0%", "0.0%"), width
    learner.screenshot("tracks-with-progress", full_page=False)


def test_the_filter_narrows_as_the_learner_types(learner: Learner) -> None:
    page = learner.page
    learner.goto("/")
    total = page.locator(".problem-card:visible").count()
    page.fill("#filter-q", "rotary")
    page.wait_for_function("() => document.getElementById('filter-count').textContent !== ''")
    visible = page.locator(".problem-card:visible")
    assert 1 <= visible.count() < total
    assert all("rotary" in (visible.nth(i).get_attribute("data-search") or "") for i in range(visible.count()))
    assert page.locator(".track[data-track='self-supervised']").is_hidden()
    assert "q=rotary" in page.url, "the address keeps the filter, to share or reload"


def test_the_filter_works_without_javascript(browser: Browser, live_server: str) -> None:
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(live_server + "/")
        everything = page.locator(".problem-card").count()
        page.select_option("#filter-difficulty", "medium")
        page.click(".catalogue-filter button[type='submit']")
        page.wait_for_url("**/?*difficulty=medium*")
        difficulties = page.locator(".problem-card").evaluate_all("cards => cards.map(c => c.dataset.difficulty)")
        assert difficulties and set(difficulties) == {"medium"}
        assert page.locator(".problem-card").count() < everything, "the easy problems are filtered out"
    finally:
        context.close()
