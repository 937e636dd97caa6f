"""The learner's side in Chromium at the four sizes people use (1920x1080, 1366x768, a tablet at 820x1180 and a
phone at 390x844): a results pane that leads to the failure, an editor that never traps the keyboard or changes
code behind the learner's back, replies to reported checks that reach the learner, and the rough edges a
newcomer's trial found (docs: issue "The learner's side III"). Screenshots of every size go to
PAPERLAB_SHOTS_DIR (default test-artifacts/browser)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page

from tests.browser.browser_support import ARTIFACTS, REPO, VERDICT_TIMEOUT_MS, Learner
from tests.browser.conftest import open_tab, serve
from tests.browser.test_browser_pages import (
    editor_code,
    fake_report,
    open_problem,
    reference_code,
    run_tests,
    serve_fake_run,
    type_code,
    wrong_code,
)
from tests.browser.test_browser_stop import LOOPING_UPDATE

pytestmark = pytest.mark.browser

SHOTS = Path(os.environ.get("PAPERLAB_SHOTS_DIR", str(ARTIFACTS)))
EMAIL, PASSWORD = "grace@example.edu", "a long and honest password"
SIZES = {
    "desktop": (1920, 1080),
    "laptop": (1366, 768),
    "tablet": (820, 1180),
    "phone": (390, 844),
}
NARROW = {"tablet", "phone"}


@dataclass
class Site:
    url: str
    var: Path


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """A server of its own with an instructor account (the replies test signs in)."""
    var = tmp_path_factory.mktemp("learner-side")
    env = {**os.environ, "PAPERLAB_VAR_DIR": str(var), "DATABASE_URL": f"sqlite:///{var}/db.sqlite"}
    subprocess.run([sys.executable, "-m", "app", "instructor", "add", EMAIL, "--password-stdin"], input=PASSWORD,
                   text=True, env=env, cwd=REPO, check=True, timeout=120)  # fmt: skip
    with serve(var) as url:
        yield Site(url=url, var=var)


@pytest.fixture
def tab(browser: Browser, site: Site, request: pytest.FixtureRequest) -> Iterator[Learner]:
    with open_tab(browser, site.url, request.node.name.removeprefix("test_")) as learner:
        yield learner


def shot(tab: Learner, step: str, *, full_page: bool = False) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.shots += 1
    path = SHOTS / f"{tab.name}-{tab.shots:02d}-{step}.png"
    tab.page.screenshot(path=str(path), full_page=full_page)
    return path


def resize(page: Page, size: str) -> None:
    width, height = SIZES[size]
    page.set_viewport_size({"width": width, "height": height})


def in_viewport(page: Page, selector: str) -> bool:
    """The element's top edge is on the first screen (the page scrolled to the top)."""
    return bool(page.evaluate(
        """selector => { scrollTo(0, 0); const box = document.querySelector(selector).getBoundingClientRect();
                         return box.height > 0 && box.top >= 0 && box.top < innerHeight; }""", selector))


def failing_then_run(tab: Learner, size: str) -> None:
    resize(tab.page, size)
    open_problem(tab)
    type_code(tab.page, wrong_code())
    run_tests(tab.page)


def show_results(page: Page) -> None:
    if page.locator("#tab-results").is_visible() and page.locator("#results-panel").is_hidden():
        page.click("#tab-results")


# ----------------------------------------------------------------------------------- 1. the results pane


@pytest.mark.parametrize("size", SIZES)
def test_the_results_pane_leads_to_the_failure_at_every_size(tab: Learner, size: str) -> None:
    page = tab.page
    failing_then_run(tab, size)
    shot(tab, f"{size}-after-the-run")
    if size in NARROW:
        # The editor stays in view; the outcome beside Run leads to the Results tab.
        assert page.locator("#editor").is_visible()
        assert "failing" in page.inner_text("#run-outcome")
        assert re.fullmatch(r"Results · \d+ failing", " ".join(page.inner_text("#tab-results").split()))
        page.click("#run-outcome button")
    # The summary and the first failure are on the first screen, at 1366x768 too.
    assert in_viewport(page, "#summary"), "the run's summary is below the fold"
    first = page.locator("#verdicts li.check").first
    assert first.get_attribute("class") == "check check--failed", "the failures come first"
    assert page.evaluate("() => document.getElementById('verdicts').scrollHeight <= "
                         "document.getElementById('verdicts').clientHeight + 1"), "the checks sit in a scroll box"
    # Passed checks are folded into a count per function, under that function's failures.
    folded = page.locator(".verdict-group--failing .verdict-passed").first
    assert re.fullmatch(r"\d+ passed", folded.locator(":scope > summary").inner_text().strip())
    assert folded.get_attribute("open") is None
    shot(tab, f"{size}-results")
    shot(tab, f"{size}-results-page", full_page=True)


def test_a_load_error_is_on_the_first_screen_at_1366x768(tab: Learner) -> None:
    page = tab.page
    resize(page, "laptop")
    open_problem(tab)
    lines = reference_code().splitlines()
    broken = next(i for i, line in enumerate(lines) if line.startswith("def moco_loss"))
    lines[broken] = lines[broken].replace("(", "((", 1)
    type_code(page, "\n".join(lines) + "\n")
    run_tests(page)
    assert in_viewport(page, ".notice[data-kind='load']"), "the load error is below the fold"
    assert in_viewport(page, ".notice[data-kind='load'] .notice__message")
    shot(tab, "laptop-load-error")


def test_the_summarys_first_failure_is_a_link_that_focuses_it(tab: Learner) -> None:
    page = tab.page
    failing_then_run(tab, "laptop")
    link = page.locator("#summary a.summary__check")
    first_id = page.locator("#verdicts li.check--failed").first.get_attribute("data-check-id")
    assert link.get_attribute("href") == f"#check-{first_id}"
    page.locator(f"[data-check-id='{first_id}'] > details").evaluate("d => d.open = false")
    link.click()
    focused = page.evaluate("() => document.activeElement.closest('li.check')?.dataset.checkId")
    assert focused == first_id
    assert page.locator(f"[data-check-id='{first_id}'] > details").get_attribute("open") is not None


def test_failures_only_hides_what_passed(tab: Learner) -> None:
    page = tab.page
    failing_then_run(tab, "desktop")
    assert page.locator(".verdict-group--clean").first.is_visible()
    page.check("#failures-only")
    assert page.locator(".verdict-group--clean").first.is_hidden()
    assert page.locator(".verdict-passed").first.is_hidden()
    assert page.locator("#verdicts li.check--failed").first.is_visible()
    shot(tab, "failures-only")
    page.reload()
    page.wait_for_selector(".verdict-panel[data-state='done']")
    assert page.is_checked("#failures-only"), "the choice is remembered"


def test_f8_and_n_p_go_to_the_next_and_previous_failure(tab: Learner) -> None:
    page = tab.page
    failing_then_run(tab, "desktop")
    failing = page.locator("#verdicts li.check--failed, #verdicts li.check--error")
    ids = [failing.nth(i).get_attribute("data-check-id") for i in range(failing.count())]
    assert len(ids) >= 2, ids
    focused = "() => document.activeElement.closest('li.check')?.dataset.checkId"
    page.focus("#editor .cm-content")  # F8 works from the editor too
    page.keyboard.press("F8")
    assert page.evaluate(focused) == ids[0]
    page.keyboard.press("n")  # one-letter keys only inside the results pane
    assert page.evaluate(focused) == ids[1]
    page.keyboard.press("p")
    assert page.evaluate(focused) == ids[0]
    page.keyboard.press("Shift+F8")
    assert page.evaluate(focused) == ids[-1], "Shift+F8 wraps round to the last failure"
    page.focus("#editor .cm-content")
    before = editor_code(page)
    page.keyboard.press("n")
    assert editor_code(page) != before, "n in the editor is a letter, not a shortcut"


# ------------------------------------------------------------------------- 2. an editor that never traps


def test_tab_moves_past_the_editor_until_the_learner_enters_it(tab: Learner) -> None:
    page = tab.page
    resize(page, "laptop")
    open_problem(tab)
    before = editor_code(page)
    page.focus("#wrap-toggle")  # the control just before the editor
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.classList.contains('cm-content')")
    assert page.get_attribute("#editor-mode", "data-mode") == "navigate"
    assert "Enter starts editing" in page.inner_text("#editor-mode")
    shot(tab, "editor-navigate-mode")
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.id") == "run-tests", "Tab moved on"
    assert editor_code(page) == before, "Tab changed nothing"
    assert page.get_attribute("#edit-status", "data-edited") == "false"

    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Enter")  # enters the editor: no newline
    assert editor_code(page) == before
    assert page.get_attribute("#editor-mode", "data-mode") == "edit"
    page.keyboard.press("Tab")  # now it indents
    assert editor_code(page) != before
    page.wait_for_selector("#edit-status[data-edited='true']")  # the edit shows as one
    assert "Edited since your last run" in page.inner_text("#edit-status")
    assert page.locator("#editor .cm-editMark--changed").count() >= 1
    shot(tab, "editor-edit-mode")
    page.keyboard.press("Escape")
    assert page.get_attribute("#editor-mode", "data-mode") == "navigate"
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.id") == "run-tests"


def test_a_click_enters_the_editor(tab: Learner) -> None:
    page = tab.page
    open_problem(tab)
    page.click("#editor .cm-line >> nth=2")
    assert page.get_attribute("#editor-mode", "data-mode") == "edit"


def test_edits_since_the_last_run_are_marked_until_the_next_run(tab: Learner) -> None:
    page = tab.page
    open_problem(tab)
    type_code(page, wrong_code())
    run_tests(page)
    assert page.get_attribute("#edit-status", "data-edited") == "false"
    assert page.locator("#editor .cm-editMark").count() == 0
    page.focus("#editor .cm-content")
    page.keyboard.press("Control+End")
    page.keyboard.insert_text("\n# a note\n")
    page.wait_for_selector("#edit-status[data-edited='true']")
    assert page.locator("#editor .cm-editMark--changed").count() >= 1


@pytest.mark.parametrize("size", ["laptop", "phone"])
def test_long_lines_wrap_and_the_choice_is_remembered(tab: Learner, size: str) -> None:
    page = tab.page
    resize(page, size)
    open_problem(tab)
    type_code(page, "x = 1  # " + "a long comment that runs far past the editor's right edge " * 3 + "\n")
    scroller = ("() => { const s = document.querySelector('#editor .cm-scroller');"
                " return s.scrollWidth - s.clientWidth; }")
    assert page.get_attribute("#wrap-toggle", "aria-pressed") == "true"
    assert page.evaluate(scroller) <= 1, "a long line is cut off"
    shot(tab, f"{size}-wrapped")
    page.click("#wrap-toggle")
    page.wait_for_function("() => { const s = document.querySelector('#editor .cm-scroller');"
                           " return s.scrollWidth - s.clientWidth > 100; }")
    page.reload()
    page.wait_for_selector("html[data-ready]")
    assert page.get_attribute("#wrap-toggle", "aria-pressed") == "false", "the choice is remembered"


def test_the_start_of_a_run_is_announced_with_the_focus_in_the_editor(tab: Learner) -> None:
    page = tab.page
    open_problem(tab)
    page.evaluate("""() => { window.heard = [];
        new MutationObserver(() => heard.push(document.getElementById('run-announcer').textContent))
          .observe(document.getElementById('run-announcer'),
                   { childList: true, characterData: true, subtree: true }); }""")
    type_code(page, wrong_code())
    run_tests(page)
    page.wait_for_function("() => heard.some(t => t.startsWith('Not solved yet'))")
    assert "Running checks…" in page.evaluate("() => heard")


# ------------------------------------------------------------------------------ 3. replies reach the learner


def test_an_instructors_reply_reaches_the_learner(tab: Learner, site: Site, browser: Browser) -> None:
    page = tab.page
    open_problem(tab)
    type_code(page, wrong_code())
    run_tests(page)
    check = page.locator("#verdicts li.check--failed").first
    check.locator(".report-check__toggle").click()
    check.locator("textarea").fill("I cannot tell what this message expects.")
    check.get_by_role("button", name="Send to the instructor").click()
    page.wait_for_selector("text=Your instructor's reply will show")

    instructor = browser.new_context()
    try:
        desk = instructor.new_page()
        desk.goto(site.url + "/instructor/login")
        desk.fill("input[name=email]", EMAIL)
        desk.fill("input[name=password]", PASSWORD)
        desk.click("button[type=submit]")
        desk.goto(site.url + "/instructor/reports")
        desk.locator("textarea[name=reply]").first.fill("It expects the temperature to divide the logits.")
        desk.locator(".report-item__form button[type=submit]").first.click()
    finally:
        instructor.close()

    for path in ("/", "/problems/moco"):
        tab.goto(path)
        assert " ".join(page.inner_text("#replies-badge").split()).startswith("1 new reply from your instructor")
    shot(tab, "reply-badge")
    page.click("#replies-badge a")
    page.wait_for_url("**/reports")
    item = page.locator(".my-report").first
    assert "It expects the temperature to divide the logits." in item.inner_text()
    assert "Answered" in item.inner_text() and "New reply" in item.inner_text()
    shot(tab, "my-reports", full_page=True)
    tab.goto("/")
    assert page.locator("#replies-badge").count() == 0, "read: the badge is gone"


# ------------------------------------------------------------------------------------ 9. and the rest


def test_a_stopped_run_is_not_a_failed_attempt(tab: Learner) -> None:
    page = tab.page
    open_problem(tab)
    type_code(page, reference_code() + LOOPING_UPDATE)
    page.focus("#editor .cm-content")
    page.keyboard.press("Control+Enter")
    page.wait_for_function("() => /has been running/.test(document.getElementById('run-call').textContent)",
                           timeout=VERDICT_TIMEOUT_MS)  # fmt: skip
    page.click("#stop-run")
    page.wait_for_selector(".verdict-panel[data-state='done']", timeout=VERDICT_TIMEOUT_MS)
    locked = page.evaluate("() => fetch('/api/problems/moco/solution').then(r => r.json())")
    assert "you have 0" in locked["detail"], locked


def test_maths_in_summaries_is_rendered(tab: Learner) -> None:
    page = tab.page
    tab.goto("/")
    card = page.locator(".problem-card", has=page.locator("a[href='/problems/attention']")).first
    assert card.locator(".problem-card__summary .katex").count() == 1
    assert "sqrt" not in card.locator(".problem-card__summary").inner_text()
    tab.goto("/problems/attention")
    assert page.locator(".statement__header .lede .katex").count() == 1
    assert page.locator(".functions__summary .katex").count() >= 1


def test_every_page_has_a_favicon(tab: Learner) -> None:
    response = tab.page.request.get(tab.base_url + "/favicon.ico")
    assert response.status == 200 and response.headers["content-type"] == "image/x-icon"


def test_an_attempt_is_highlighted_diffed_and_loads_back_into_the_editor(tab: Learner) -> None:
    page = tab.page
    open_problem(tab)
    type_code(page, wrong_code())
    run_tests(page)
    type_code(page, reference_code())
    run_tests(page)
    attempts = page.evaluate("() => fetch('/api/problems/moco/submissions').then(r => r.json())")
    older, newer = attempts[1]["id"], attempts[0]["id"]
    tab.goto(f"/submissions/{newer}")
    assert page.locator(".submission__code .highlight .k").count() > 0, "the code is highlighted"
    assert page.locator("#attempt-diff .gd, #attempt-diff .gi").count() >= 2, "the diff against the previous one"
    shot(tab, "attempt-page", full_page=True)

    tab.goto(f"/submissions/{older}")
    # The editor holds a draft that differs: loading asks first, and "no" keeps the draft.
    open_problem(tab)
    type_code(page, "# my unsaved draft\n")
    page.wait_for_timeout(600)  # the draft is saved a moment after the last keystroke
    tab.goto(f"/submissions/{older}")
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.click("#restore-attempt")
    page.wait_for_selector("html[data-ready]")
    page.wait_for_function("() => /Kept your draft/.test(document.getElementById('save-status').textContent)")
    assert editor_code(page) == "# my unsaved draft\n"
    assert "restore=" not in page.url, "a reload restores nothing"
    tab.goto(f"/submissions/{older}")
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#restore-attempt")
    page.wait_for_function("() => /Loaded your attempt/.test(document.getElementById('save-status').textContent)")
    assert editor_code(page) == wrong_code()
    shot(tab, "attempt-restored")


def test_the_continue_link_can_be_copied_or_scanned_and_the_address_bar_stays_clean(tab: Learner) -> None:
    page = tab.page
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=tab.base_url)
    tab.goto("/continue")
    page.click("#create-device-link")
    page.wait_for_selector("#device-link")
    assert page.url == tab.base_url + "/continue"
    assert page.locator(".device-links__qr svg").is_visible()
    page.click("#copy-device-link")
    page.wait_for_selector("#copy-status:has-text('Copied')")
    assert page.evaluate("() => navigator.clipboard.readText()") == page.input_value("#device-link")
    shot(tab, "continue-link")


def test_an_instructors_page_in_a_learners_browser_offers_the_sign_in(tab: Learner) -> None:
    page = tab.page
    tab.goto("/")
    response = tab.goto("/instructor")
    assert response is not None and response.status == 403
    page.click("#instructor-sign-in")
    page.wait_for_url("**/instructor/login?next=/instructor")


def test_the_theme_button_says_what_it_does_when_the_system_is_dark(tab: Learner) -> None:
    page = tab.page
    page.emulate_media(color_scheme="dark")
    tab.goto("/")
    toggle = page.locator("#theme-toggle")
    assert toggle.inner_text().strip().endswith("Light theme")
    assert toggle.get_attribute("aria-label") == "Switch to the light theme"
    toggle.click()
    assert page.evaluate("() => getComputedStyle(document.body).backgroundColor") != "rgb(16, 18, 26)"
    assert toggle.inner_text().strip().endswith("Dark theme")


def test_a_failed_runs_empty_experiment_says_so_instead_of_a_lone_point(tab: Learner) -> None:
    page = tab.page
    open_problem(tab)
    report = fake_report(error=None, sandbox="bubblewrap", message="expected 1, got 2", limit=None)
    report["experiment"] = {"steps": [0], "series": {"loss": [2.5]}}
    serve_fake_run(page, report)
    run_tests(page)
    page.wait_for_selector("#charts .charts__empty")
    assert page.locator("#charts canvas").count() == 0
    assert "not enough data for a curve" in page.inner_text("#charts")


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_a_chart_of_steps_has_whole_numbers_on_its_axis(tab: Learner, size: str) -> None:
    page = tab.page
    resize(page, size)
    open_problem(tab)
    report = fake_report(error=None, sandbox="bubblewrap", message="expected 1, got 2", limit=None)
    report["experiment"] = {"steps": [0, 1, 2, 3], "series": {"loss": [2.5, 2.0, 1.6, 1.5]}}
    serve_fake_run(page, report)
    run_tests(page)
    show_results(page)
    page.wait_for_selector("#charts canvas")
    ticks = page.evaluate("() => document.querySelector('#charts .chart').paperlabChart.axes[0]._values")
    assert ticks and all(tick == "" or re.fullmatch(r"\d+", tick) for tick in ticks), ticks
    assert any(ticks), ticks


def test_a_chart_of_tiny_values_labels_its_ticks_apart(tab: Learner) -> None:
    # An error against float64 sits near 1e-7: labels rounded to a few decimals all read "0".
    page = tab.page
    open_problem(tab)
    report = fake_report(error=None, sandbox="bubblewrap", message="expected 1, got 2", limit=None)
    report["experiment"] = {"steps": [64, 128, 256, 512], "series": {"error": [3.1e-7, 1.2e-7, 2.9e-7, 3.4e-7]}}
    serve_fake_run(page, report)
    run_tests(page)
    show_results(page)
    page.wait_for_selector("#charts canvas")
    ticks = page.evaluate("() => document.querySelector('#charts .chart').paperlabChart.axes[1]._values")
    assert ticks and len(set(ticks)) == len(ticks), ticks
    assert all(re.fullmatch(r"0|-?\d(\.\d+)?e-\d+", tick) for tick in ticks), ticks


# ------------------------------------------------------------------------------- 6. the instructor's charts


def test_the_instructors_charts_follow_the_dark_theme_and_the_keyboard(tab: Learner, site: Site) -> None:
    with httpx.Client(base_url=site.url, timeout=30) as learner:
        submitted = learner.post("/api/problems/moco/submissions", json={"code": wrong_code()}).json()["id"]
        while learner.get(f"/api/submissions/{submitted}").json()["status"] not in ("done", "error"):
            pass
    page = tab.page
    page.emulate_media(color_scheme="dark")
    tab.goto("/instructor/login")
    page.fill("input[name=email]", EMAIL)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    tab.goto("/instructor/problems/moco")
    page.wait_for_selector(".bar-chart canvas")
    colours = page.evaluate("""() => { const root = getComputedStyle(document.documentElement);
        return [root.getPropertyValue('--chart-grid').trim(), root.getPropertyValue('--chart-axis').trim()]; }""")
    for index in range(page.locator(".bar-chart").count()):
        chart = f"document.querySelectorAll('.bar-chart')[{index}].paperlabChart"
        grid, axis = page.evaluate(f"() => [{chart}.axes[1].grid.stroke({chart}), {chart}.axes[0].stroke({chart})]")
        assert (grid, axis) == tuple(colours), "gridlines and axis titles in the dark theme's colours"
        ticks = page.evaluate(f"() => {chart}.axes[0]._values")
        assert ticks and any(ticks), f"chart {index + 1} has no tick labels"
    slider = page.locator(".bar-chart [role='slider']").first
    slider.focus()
    readout = page.locator(".bar-chart .chart__readout").first
    assert readout.inner_text().startswith("1. ")
    page.keyboard.press("ArrowRight")
    assert readout.inner_text().startswith("2. ") or slider.get_attribute("aria-valuemax") == "1"
    assert slider.get_attribute("aria-valuetext")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.locator(".bar-chart").first.screenshot(path=str(SHOTS / f"{tab.name}-first-chart-dark.png"))
    shot(tab, "instructor-charts-dark", full_page=True)


# ------------------------------------------------------ done means: axe stays clean, at every size and theme


def learner_with_a_failed_attempt_and_a_report(tab: Learner) -> tuple[str, str]:
    """A failed attempt after an earlier one (so its page has a diff) and a reported check; returns both ids."""
    page = tab.page
    open_problem(tab)
    type_code(page, reference_code().replace("def moco_loss", "def unused_name", 1))
    run_tests(page)
    type_code(page, wrong_code())
    run_tests(page)
    attempts = page.evaluate("() => fetch('/api/problems/moco/submissions').then(r => r.json())")
    failed = next(a for a in attempts if a["status"] == "done" and not a["solved"] and a["passed"])
    check = page.evaluate(f"() => fetch('/api/submissions/{failed['id']}').then(r => r.json())")
    first = next(c["id"] for c in check["report"]["checks"] if c["status"] == "failed")
    page.evaluate("""([id, check]) => fetch(`/api/submissions/${id}/check-reports`, {method: 'POST',
        headers: {'Content-Type': 'application/json'}, body: JSON.stringify({check_id: check, text: 'unclear'})})""",
                  [failed["id"], first])  # fmt: skip
    return attempts[0]["id"], attempts[1]["id"]


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_no_serious_accessibility_violation_at_any_size(tab: Learner, theme: str) -> None:
    from tests.browser.test_browser_a11y import axe_violations

    page = tab.page
    page.emulate_media(color_scheme=theme)  # type: ignore[arg-type]
    latest, _ = learner_with_a_failed_attempt_and_a_report(tab)
    found: dict[str, list[str]] = {}

    def problem_results() -> None:
        tab.goto("/problems/moco")
        show_results(page)

    def problem_statement() -> None:
        tab.goto("/problems/moco")
        page.click("#tab-statement")

    def continue_link() -> None:
        tab.goto("/continue")
        page.click("#create-device-link")
        page.wait_for_selector("#device-link")

    for size in SIZES:
        resize(page, size)
        states: dict[str, Callable[[], object]] = {
            "problem-results": problem_results,
            "problem-statement": problem_statement,
            "problem-code": lambda: open_problem(tab),
            "attempt": lambda: tab.goto(f"/submissions/{latest}"),
            "reports": lambda: tab.goto("/reports"),
            "continue-link": continue_link,
            "home": lambda: tab.goto("/"),
            "instructors-only": lambda: tab.goto("/instructor"),
        }
        for name, reach in states.items():
            reach()
            page.wait_for_selector("html[data-ready]")
            page.wait_for_timeout(150)
            shot(tab, f"{theme}-{size}-{name}")
            for violation in axe_violations(page, tab.base_url):
                targets = [json.dumps(node["target"]) for node in violation["nodes"][:3]]
                found.setdefault(f"{size} {name}", []).append(f"{violation['id']}: {', '.join(targets)}")
    assert not found, "axe found:\n" + "\n".join(f"{where}: {v}" for where, vs in found.items() for v in vs)
