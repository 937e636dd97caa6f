"""The code editor keeps its size on a desktop, whatever the verdict panel holds: after a run, after a
reload that shows an earlier attempt, after solving. At 1101 px and wider the workbench is a sticky column
as tall as the viewport; the checks scroll, the editor does not shrink (it once shrank to a 2 px line)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from tests.browser.browser_support import Learner
from tests.browser.test_browser_pages import open_problem, reference_code, run_tests, type_code, wrong_code

pytestmark = pytest.mark.browser

DESKTOP_SIZES = [(1280, 720), (1366, 900), (1440, 1400), (1920, 1080)]
EDITOR_MIN_PX = 400


# The editor's own box can keep its height while an ancestor with `overflow: hidden` clips it to nothing (the
# bug: a 2 px .editor-frame around a 417 px editor), so the height that counts is what the clipping ancestors
# and the viewport leave visible, at the top of the page.
VISIBLE_HEIGHT_JS = """() => {
    window.scrollTo(0, 0);
    const editor = document.getElementById('editor');
    let { top, bottom } = editor.getBoundingClientRect();
    for (let node = editor.parentElement; node; node = node.parentElement) {
        const style = getComputedStyle(node);
        if (style.overflowY !== 'visible' || style.overflowX !== 'visible') {
            const clip = node.getBoundingClientRect();
            top = Math.max(top, clip.top);
            bottom = Math.min(bottom, clip.bottom);
        }
    }
    return Math.max(0, Math.min(bottom, innerHeight) - Math.max(top, 0));
}"""


def editor_heights(page: Page) -> dict[str, float]:
    """The editor's visible height at every desktop size, keyed "WxH"."""
    heights: dict[str, float] = {}
    for width, height in DESKTOP_SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(50)  # one layout after the resize
        heights[f"{width}x{height}"] = float(page.evaluate(VISIBLE_HEIGHT_JS))
    return heights


def required_height(page: Page, viewport_height: int) -> float:
    header = page.locator(".site-header").bounding_box()
    assert header is not None
    return min(EDITOR_MIN_PX, viewport_height - header["height"])


def assert_editor_keeps_its_size(page: Page) -> None:
    heights = editor_heights(page)
    too_small = {
        size: height
        for (size, height), (_, viewport_height) in zip(heights.items(), DESKTOP_SIZES, strict=True)
        if height < required_height(page, viewport_height) - 0.5
    }
    assert not too_small, f"the editor shrank below {EDITOR_MIN_PX} px: {too_small} (all: {heights})"


def test_editor_keeps_its_size_after_a_failed_run(learner: Learner) -> None:
    page = learner.page
    open_problem(learner)
    type_code(page, wrong_code())
    run_tests(page)
    assert_editor_keeps_its_size(page)
    # Typing still lands in a visible editor: the cursor's line is inside the editor's box.
    page.set_viewport_size({"width": 1280, "height": 720})
    page.focus("#editor .cm-content")
    assert page.locator("#editor .cm-activeLine").is_visible()


def test_editor_keeps_its_size_after_a_reload_with_an_earlier_attempt(learner: Learner) -> None:
    page = learner.page
    open_problem(learner)
    type_code(page, wrong_code())
    run_tests(page)
    page.reload()
    page.wait_for_selector(".verdict-panel[data-state='done']")
    assert page.inner_text("#summary").startswith("Last attempt")
    assert_editor_keeps_its_size(page)


def test_editor_keeps_its_size_after_solving(learner: Learner) -> None:
    page = learner.page
    open_problem(learner)
    type_code(page, reference_code())
    run_tests(page)
    page.wait_for_selector("#charts canvas")
    assert_editor_keeps_its_size(page)
    page.set_viewport_size({"width": 1366, "height": 900})
    page.wait_for_timeout(100)
    learner.screenshot("editor-1366x900-solved", full_page=False)
