""""Try it" in the browser: the example script runs after the learner's functions and prints a tensor; an
exception names the line in the editor it came from; nothing is recorded as an attempt."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from tests.browser.browser_support import Learner
from tests.browser.test_browser_pages import MOCO, open_problem, reference_code, type_code

pytestmark = pytest.mark.browser


def type_script(page: Page, script: str) -> None:
    page.focus("#scratch-editor .cm-content")
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(script)


def run_script(page: Page) -> None:
    page.click("#run-script")
    page.wait_for_function(
        "() => document.getElementById('run-script').getAttribute('aria-busy') === 'false'"
        " && document.getElementById('scratch-output').childElementCount > 0",
        timeout=60_000,
    )


def test_the_example_script_prints_a_tensor_from_the_learners_functions(learner: Learner) -> None:
    page = learner.page
    open_problem(learner)
    type_code(page, reference_code())
    page.click("#scratch > summary")
    script = page.evaluate("() => document.getElementById('scratch-editor').paperlabEditor.getCode()")
    assert script == (MOCO / "scratch.py").read_text()
    run_script(page)
    printed = page.inner_text(".scratch__stdout")
    assert "loss tensor(" in printed and "next pointer 1" in printed, printed
    assert "finished in" in page.inner_text("#scratch-status")
    page.locator("#scratch").scroll_into_view_if_needed()
    learner.screenshot("scratch-run-prints-a-tensor", full_page=False)
    learner.goto("/problems/moco/history")
    assert "No attempts yet" in page.inner_text("main"), "a scratch run is not an attempt"


def test_an_exception_names_the_scripts_line_and_goes_there(learner: Learner) -> None:
    page = learner.page
    open_problem(learner)
    type_code(page, reference_code())
    page.click("#scratch > summary")
    type_script(page, "import torch\n\nprint(moco_loss(torch.ones(2, 3), None, None, 0.1))\n")
    run_script(page)
    error = page.locator(".scratch__error")
    assert "on line" in error.inner_text() and "of your" in error.inner_text()
    error.get_by_role("button", name="Go to line").click()
    focused_in = page.evaluate("() => document.activeElement.closest('.cm-editor').parentElement.id")
    assert focused_in in {"scratch-editor", "editor"}
    learner.screenshot("scratch-error", full_page=False)
