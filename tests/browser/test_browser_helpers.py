"""A problem's helpers.py in the browser: a collapsed panel under the editor shows it read-only, as highlighted
text the learner can open, scroll and select but never edit; a solution that imports it runs (see also
test_browser_pages and test_browser_scratch, whose MoCo reference and "Try it" run import it)."""

from __future__ import annotations

import pytest

from tests.browser.browser_support import Learner
from tests.browser.test_browser_pages import MOCO, editor_code, open_problem

pytestmark = pytest.mark.browser


def test_the_helpers_panel_shows_helpers_py_collapsed_under_the_editor(learner: Learner) -> None:
    page = learner.page
    open_problem(learner)
    panel = page.locator("#helpers-panel")
    assert panel.locator("summary").inner_text().strip() == "helpers.py (provided, read-only)"
    assert panel.get_attribute("open") is None, "collapsed until the learner opens it"
    assert page.locator("#helpers-code").is_hidden()
    editor_box, panel_box = page.locator("#editor").bounding_box(), panel.bounding_box()
    assert editor_box is not None and panel_box is not None and panel_box["y"] > editor_box["y"], "under the editor"

    panel.locator("summary").click()
    code = page.locator("#helpers-code")
    assert code.is_visible()
    assert code.locator("pre").inner_text().rstrip() == (MOCO / "helpers.py").read_text().rstrip()
    assert code.locator(".highlight .k").count() > 0, "highlighted like the statement's code blocks"
    code.scroll_into_view_if_needed()
    learner.screenshot("helpers-panel-open", full_page=False)


def test_the_helpers_panel_cannot_be_edited(learner: Learner) -> None:
    page = learner.page
    open_problem(learner)
    before = editor_code(page)
    page.locator("#helpers-panel summary").click()
    code = page.locator("#helpers-code")
    shown = code.inner_text()
    assert code.locator(".cm-editor, textarea, input, [contenteditable]").count() == 0
    assert page.evaluate("() => document.getElementById('helpers-code').isContentEditable") is False

    code.locator("pre").click()  # then try to type, delete and paste into it
    page.keyboard.type("raise SystemExit")
    page.keyboard.press("Backspace")
    page.keyboard.press("Control+a")
    page.keyboard.press("Delete")
    page.keyboard.insert_text("def validate_loss_inputs(*args):\n    pass\n")
    assert code.inner_text() == shown
    assert editor_code(page) == before, "keys typed in the panel do not reach the editor"
