"""The learner's path through PaperLab in a real browser against the real server and the MoCo problem:
type a solution, run it, watch the verdicts stream in, unlock and read the notes; wrong code, broken code,
reloading, the locked notes. Every step leaves a screenshot in test-artifacts/browser/."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Page

from tests.browser.browser_support import REPO, VERDICT_TIMEOUT_MS, Learner, moco_mutant

pytestmark = pytest.mark.browser

MOCO = REPO / "problems" / "moco"
# A mutant whose mistake shows as plain failed checks with messages (not a limit or a load error).
PREFERRED_MUTANT = "temperature_multiplies.py"


# ----------------------------------------------------------------------------- what a learner does


def type_code(page: Page, code: str) -> None:
    """Select everything in the editor and type `code` over it in one text input (as a paste would)."""
    # Focus rather than click: the content is as wide as its longest line, and clicking its centre would
    # scroll the editor sideways.
    page.focus("#editor .cm-content")
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(code)


def editor_code(page: Page) -> str:
    return str(page.evaluate("() => document.getElementById('editor').paperlabEditor.getCode()"))


def run_tests(page: Page) -> None:
    """Ctrl+Enter in the editor, then wait until the panel shows a finished report."""
    page.focus("#editor .cm-content")
    page.keyboard.press("Control+Enter")
    # Attached, not visible: on a narrow screen the results are a tab away while the editor stays in view.
    page.wait_for_selector(".verdict-panel[data-state='done']", state="attached", timeout=VERDICT_TIMEOUT_MS)


def open_problem(learner: Learner) -> None:
    """The problem page with its editor in view: on a narrow screen, its Code tab."""
    learner.goto("/problems/moco")
    code_tab = learner.page.locator("#tab-code")
    if code_tab.is_visible():
        code_tab.click()
    learner.page.wait_for_selector("#editor .cm-content")


def reference_code() -> str:
    return (MOCO / "reference.py").read_text()


def wrong_code() -> str:
    return moco_mutant(PREFERRED_MUTANT)


def progress_counts(page: Page) -> tuple[int, int]:
    match = re.match(r"(\d+) / (\d+)", page.inner_text("#progress"))
    assert match, page.inner_text("#progress")
    return int(match.group(1)), int(match.group(2))


def canvas_is_drawn(page: Page, selector: str) -> bool:
    """True when the canvas has any non-transparent pixel (uPlot drew axes and a line)."""
    return bool(
        page.eval_on_selector(
            selector,
            """canvas => {
                const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
                for (let i = 3; i < data.length; i += 4) if (data[i] !== 0) return true;
                return false;
            }""",
        )
    )


# ----------------------------------------------------------------------------------------- the tests


def test_correct_solution_solves_and_unlocks_the_notes(learner: Learner) -> None:
    page = learner.page
    open_problem(learner)
    assert page.locator("#notes-link").is_hidden()
    if "$" in (MOCO / "statement.md").read_text():
        assert page.locator(".statement .katex").count() > 0, "KaTeX rendered no math in the statement"
        assert page.locator(".statement .katex-error").count() == 0
    learner.screenshot("problem-opened", full_page=False)

    code = reference_code()
    type_code(page, code)
    assert editor_code(page) == code
    learner.screenshot("solution-typed", full_page=False)

    run_tests(page)
    passed, total = progress_counts(page)
    assert total > 0
    assert passed == total, page.inner_text("#verdicts")
    assert page.locator(".check--passed").count() == total
    assert page.get_attribute("#summary", "data-tone") == "passed"
    assert "Solved" in page.inner_text("#summary")
    assert page.locator("#notes-link").is_visible()
    page.wait_for_selector("#charts canvas")
    learner.screenshot("solved", full_page=False)
    page.locator("#charts").scroll_into_view_if_needed()
    learner.screenshot("solved-charts", full_page=False)

    page.click("#notes-link")
    page.wait_for_url("**/problems/moco/notes")
    page.wait_for_selector("html[data-ready='true']")
    canvases = page.locator("canvas")
    assert canvases.count() >= 1, "the notes page drew no chart"
    for index in range(canvases.count()):
        assert canvas_is_drawn(page, f":nth-match(canvas, {index + 1})"), f"chart {index + 1} is blank"
    learner.screenshot("notes")


def test_wrong_solution_shows_failures_then_marks_what_a_fix_flipped(learner: Learner) -> None:
    page = learner.page
    open_problem(learner)
    type_code(page, wrong_code())
    run_tests(page)

    passed, total = progress_counts(page)
    assert passed < total
    failed = page.locator(".check--failed")
    assert failed.count() >= 1
    first = failed.first
    assert first.locator("details").get_attribute("open") is not None, "the first failure should be open"
    assert first.locator(".check__message").inner_text().strip(), "a failed check needs a message"
    assert page.get_attribute("#summary", "data-tone") in {"failed", "limit"}
    assert page.locator("#notes-link").is_hidden()
    learner.screenshot("failures", full_page=False)

    # Every check the fix repairs is marked as newly passing, against the previous attempt in this page.
    type_code(page, reference_code())
    run_tests(page)
    passed, total = progress_counts(page)
    assert passed == total
    assert page.locator(".check__flip--fixed").count() >= 1
    learner.screenshot("fixed-with-flip-markers", full_page=False)

    # The attempts page lists both; the older attempt's page shows its verdicts and code.
    learner.goto("/problems/moco/history")
    rows = page.locator("table.attempts tbody tr")
    assert rows.count() == 2
    learner.screenshot("history")
    rows.nth(1).locator("a").click()
    page.wait_for_url(re.compile(r".*/submissions/[^/]+$"))
    page.wait_for_selector("html[data-ready]")
    assert page.locator(".check--failed").count() >= 1
    assert "def moco_loss" in page.inner_text(".code-block")
    learner.screenshot("submission")


def test_syntax_error_shows_the_load_error_with_its_line(learner: Learner) -> None:
    page = learner.page
    open_problem(learner)
    lines = reference_code().splitlines()
    broken_line = next(i for i, line in enumerate(lines, 1) if line.startswith("def moco_loss"))
    lines[broken_line - 1] = lines[broken_line - 1].replace("(", "((", 1)  # unbalanced parenthesis
    type_code(page, "\n".join(lines) + "\n")
    run_tests(page)

    notice = page.locator(".notice[data-kind='load']")
    assert notice.is_visible()
    text = notice.inner_text()
    reported = re.search(r"line (\d+)", text, re.IGNORECASE)
    assert reported, text
    # Python reports an unclosed bracket on its own line or where the statement ends; both are near it.
    assert broken_line <= int(reported.group(1)) <= broken_line + 3, text
    assert "did not load" in page.inner_text("#summary")
    learner.screenshot("load-error", full_page=False)

    notice.get_by_role("button", name=re.compile("Go to line")).click()
    cursor_line = page.evaluate(
        "() => { const v = document.getElementById('editor').paperlabEditor.view;"
        " return v.state.doc.lineAt(v.state.selection.main.head).number; }"
    )
    assert cursor_line == int(reported.group(1))


def test_reloading_keeps_the_code(learner: Learner) -> None:
    page = learner.page
    open_problem(learner)
    draft = "import torch\n\n\ndef moco_loss(query, key, queue, temperature):\n    return None  # draft\n"
    type_code(page, draft)
    page.wait_for_timeout(600)  # the draft is saved a moment after the last keystroke
    page.reload()
    page.wait_for_selector("html[data-ready]")
    assert editor_code(page) == draft, "an unsubmitted draft must survive a reload"
    assert "Restored" in page.inner_text("#save-status")
    learner.screenshot("draft-restored", full_page=False)

    # Submitted code comes back from the server, with the last attempt's verdicts.
    submitted = wrong_code()
    type_code(page, submitted)
    run_tests(page)
    page.reload()
    page.wait_for_selector("html[data-ready]")
    assert editor_code(page) == submitted
    page.wait_for_selector(".verdict-panel[data-state='done']")
    assert page.inner_text("#summary").startswith("Last attempt")


def test_notes_are_locked_for_a_new_learner(learner: Learner) -> None:
    page = learner.page
    response = learner.goto("/problems/moco/notes")
    assert response is not None and response.status == 403
    heading = page.locator("h1").inner_text()
    assert "locked" in heading.lower()
    assert "every required check" in page.inner_text("main")
    assert page.locator("main a[href='/problems/moco']").is_visible()
    assert page.locator("canvas").count() == 0
    learner.screenshot("locked")


def test_problem_list_and_tablet_layout(learner: Learner) -> None:
    page = learner.page
    learner.goto("/")
    card = page.locator(".problem-card", has=page.locator("a[href='/problems/moco']"))
    assert card.locator(".badge--state").inner_text().strip() == "Not started"
    learner.screenshot("index")

    page.set_viewport_size({"width": 768, "height": 1024})
    learner.goto("/problems/moco")
    # One column at tablet width, as tabs: the statement first, the editor one tap away (not under the statement).
    assert page.locator(".statement").is_visible() and page.locator("#editor").is_hidden()
    page.click("#tab-code")
    assert page.locator(".statement").is_hidden()
    editor = page.locator("#editor").bounding_box()
    assert editor is not None and editor["width"] > 600 and editor["y"] < 400
    learner.screenshot("problem-tablet", full_page=False)
    # Keyboard users reach the Run button from the editor with Tab (the editor takes Tab only once entered).
    page.focus("#editor .cm-content")
    page.keyboard.press("Tab")
    focused = page.evaluate("() => document.activeElement && document.activeElement.id")
    assert focused == "run-tests"


# ------------------------------------------- answers the real server rarely gives, replayed by the browser


def fake_report(*, error: dict[str, object] | None, sandbox: str, message: str,
                limit: str | None = "time") -> dict[str, object]:
    checks = [
        {"id": "moco_loss.hand_example", "title": "Hand example", "group": "moco_loss", "required": True,
         "status": "passed", "message": "", "duration_ms": 3.0, "output": ""},
        {"id": "enqueue.huge", "title": "A huge queue", "group": "enqueue", "required": True,
         "status": "failed", "message": message, "duration_ms": 10_000.0, "output": "<b>not bold</b>\n",
         "limit": limit},
    ]  # fmt: skip
    return {"problem": "moco", "solved": False, "status": "error" if error else "failed", "checks": checks,
            "experiment": None, "limits": {"wall_s": 10}, "sandbox": sandbox, "duration_ms": 10_050.0,
            "error": error}  # fmt: skip


def serve_fake_run(page: Page, report: dict[str, object]) -> None:
    """Answer this page's next submission and its event stream from `report` instead of the server."""
    submission = {"id": "fake-1", "problem": "moco", "status": "done", "created_at": "2025-01-01T00:00:00Z",
                  "code": "", "report": report}  # fmt: skip
    checks = report["checks"]
    assert isinstance(checks, list)
    events = [f"event: status\ndata: {json.dumps({'status': 'running', 'total': len(checks)})}\n\n"]
    events += [
        f"event: check\ndata: {json.dumps({'check': check, 'done': n, 'total': len(checks)})}\n\n"
        for n, check in enumerate(checks, 1)
    ]
    events.append(f"event: report\ndata: {json.dumps(submission)}\n\n")
    page.route(
        "**/api/problems/moco/submissions",
        lambda route: route.fulfill(status=202, json={"id": "fake-1", "status": "queued"}),
    )
    page.route(
        "**/api/submissions/fake-1/events",
        lambda route: route.fulfill(status=200, content_type="text/event-stream", body="".join(events)),
    )


def test_a_limit_in_an_unsandboxed_run_is_named_and_flagged(learner: Learner) -> None:
    page = learner.page
    open_problem(learner)
    message = "time limit 10 s exceeded in enqueue(queue=float32[65536, 128], keys=float32[256, 128], pointer=0)"
    serve_fake_run(page, fake_report(error={"kind": "limit", "message": message, "line": None}, sandbox="none",
                                     message=message))  # fmt: skip
    run_tests(page)
    assert page.locator(".notice[data-kind='limit']").is_visible()
    assert "10 s" in page.inner_text(".notice[data-kind='limit']")
    assert "without a sandbox" in page.inner_text("#verdicts").lower()
    assert page.get_attribute("#summary", "data-tone") == "limit"
    assert page.locator(".check--failed .badge--limit").count() == 1
    # What the submission printed is shown as text, never as markup.
    assert page.locator(".check__output b").count() == 0
    assert "<b>not bold</b>" in page.inner_text(".check--failed .check__output")
    learner.screenshot("limit-unsandboxed", full_page=False)


def test_a_message_that_mentions_a_limit_is_not_taken_for_one(learner: Learner) -> None:
    # The limit is the report's field; a learner's ValueError("time limit exceeded") gets no limit badge.
    page = learner.page
    open_problem(learner)
    message = "enqueue(...) raised ValueError: time limit exceeded (line 3 of your code)"
    serve_fake_run(page, fake_report(error=None, sandbox="bubblewrap", message=message, limit=None))
    run_tests(page)
    assert page.locator(".check--failed .badge--limit").count() == 0
    assert page.locator(".notice[data-kind='limit']").count() == 0
    assert page.get_attribute("#summary", "data-tone") == "failed"


@pytest.mark.parametrize(
    ("status", "headers", "expected"),
    [
        pytest.param(413, {}, "too large", id="413"),
        pytest.param(429, {"Retry-After": "3"}, "3 s", id="429"),
        pytest.param(503, {"Retry-After": "7"}, "7 s", id="503"),
    ],
)
def test_refused_submissions_say_why_and_when_to_retry(
    learner: Learner, status: int, headers: dict[str, str], expected: str
) -> None:
    page = learner.page
    open_problem(learner)
    page.route(
        "**/api/problems/moco/submissions",
        lambda route: route.fulfill(
            status=status, headers=headers, json={"detail": "Refused: too large" if status == 413 else "Busy."}
        ),
    )
    page.focus("#editor .cm-content")
    page.keyboard.press("Control+Enter")
    page.wait_for_selector("#run-message:not(:empty)")
    said = page.inner_text("#run-message") + " " + page.inner_text("#run-wait")
    assert expected in said, said
    learner.screenshot(f"refused-{status}", full_page=False)
    if "Retry-After" in headers:
        assert page.get_attribute("#run-tests", "aria-disabled") == "true", "the button waits out Retry-After"
        assert "run again in" in page.inner_text("#run-wait")
        page.wait_for_function(
            "() => document.getElementById('run-tests').getAttribute('aria-disabled') === 'false'", timeout=15_000
        )
        assert page.inner_text("#run-message") == ""
    else:
        assert page.get_attribute("#run-tests", "aria-disabled") == "false"


def test_reset_asks_before_discarding_the_code(learner: Learner) -> None:
    page = learner.page
    open_problem(learner)
    starter = (MOCO / "starter.py").read_text()
    type_code(page, "x = 1\n")
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.click("#reset-code")
    assert editor_code(page) == "x = 1\n", "dismissing the question keeps the code"
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#reset-code")
    assert editor_code(page) == starter
