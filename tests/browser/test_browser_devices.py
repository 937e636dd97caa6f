"""Continue on another device, in two browsers: the link made in one, opened and confirmed in the other,
shows the same progress there."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from tests.browser.browser_support import Learner
from tests.browser.test_browser_pages import open_problem, reference_code, run_tests, type_code

pytestmark = pytest.mark.browser


def test_the_link_carries_progress_to_another_browser(learner: Learner, browser: Browser) -> None:
    page = learner.page
    open_problem(learner)
    type_code(page, reference_code())
    run_tests(page)
    learner.goto("/")
    page.click("text=Continue on another device")
    page.wait_for_url("**/continue")
    page.click("#create-device-link")
    url = page.input_value("#device-link")
    learner.screenshot("device-link", full_page=False)

    other = browser.new_context()
    try:
        phone = other.new_page()
        phone.goto(url)
        phone.click("#use-device-link")
        phone.wait_for_url(learner.base_url + "/?continued=1")
        badge = phone.locator(".problem-card", has=phone.locator("a[href='/problems/moco']")).locator(".badge--state")
        assert badge.inner_text().strip().endswith("Solved")
        phone.goto(url)
        assert "used already" in phone.inner_text("main")
    finally:
        other.close()
