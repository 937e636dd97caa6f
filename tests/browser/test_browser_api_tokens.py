"""The learner's API tokens on /continue, in Chromium: made with the page's form (no script needed), shown once
with the command to run, listed without the token, revoked; no serious axe finding in either theme."""

from __future__ import annotations

import pytest

from tests.browser.browser_support import Learner
from tests.browser.test_browser_a11y import axe_violations

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_token_is_made_shown_once_and_revoked_on_the_learners_page(learner: Learner, theme: str) -> None:
    page = learner.page
    page.emulate_media(color_scheme=theme)  # type: ignore[arg-type]
    learner.goto("/continue")
    page.fill("#api-token-name", "laptop")
    page.select_option("#api-token-lifetime", "30")
    page.click("#create-api-token")
    page.wait_for_selector("html[data-ready]")
    token = page.input_value("#api-token-value")
    assert token.startswith("plt_") and len(token) == 47
    assert f"paperlab login {learner.base_url}" in page.inner_text("#api-tokens")
    assert "laptop" in page.inner_text(".api-tokens__list")
    assert not [v["id"] for v in axe_violations(page, learner.base_url)]
    learner.screenshot(f"api-token-made-{theme}")

    learner.goto("/continue")  # the token is not on the page again, only its first characters
    assert token not in page.content() and token[:10] + "…" in page.inner_text(".api-tokens__list")
    page.click(".api-tokens__list button:has-text('Revoke')")
    page.wait_for_url("**/continue#api-tokens")
    assert page.locator(".api-tokens__list").count() == 0
