"""Pages, public problem data, headers, health: what anyone can reach, and what they must never see."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from app.security import CONTENT_SECURITY_POLICY
from tests.app.app_support import NOTES_SENTINEL, TestClient, copy_problems
from tests.app.conftest import Server


def test_index_lists_problems_with_their_public_parts(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    assert "Add one" in page.text and "Return x + 1 for a tensor x" in page.text
    assert "fixture" in page.text and "easy" in page.text


def test_first_visit_creates_a_learner_with_a_signed_httponly_samesite_cookie(client: TestClient) -> None:
    response = client.get("/")
    cookie = response.headers["set-cookie"]
    assert cookie.startswith("paperlab_learner=")
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Path=/" in cookie
    assert "set-cookie" not in client.get("/").headers  # known from now on


def test_a_forged_cookie_is_a_new_learner(server: Server) -> None:
    other = server.learner()
    other.cookies.set("paperlab_learner", "someone-else")
    response = other.get("/")
    assert response.status_code == 200
    assert response.headers["set-cookie"].startswith("paperlab_learner=")


def test_problem_page_follows_the_contract(client: TestClient) -> None:
    page = client.get("/problems/add_one")
    assert page.status_code == 200
    text = page.text
    for fragment in ('id="editor"', 'data-slug="add_one"', 'id="initial-code"', 'id="starter-code"',
                     'id="run-tests"', 'id="reset-code"', 'id="verdicts"', 'id="progress"', 'id="summary"',
                     'id="charts"', 'id="notes-link"'):
        assert fragment in text, fragment
    assert '<span class="math inline">y = x + 1</span>' in text
    assert '<div class="math display">' in text and '<div class="highlight">' in text
    assert '<script>alert("statement")</script>' not in text  # raw HTML in the statement is escaped
    assert NOTES_SENTINEL not in text


ADD_ONE_HELPERS = '''"""Validation for add_one."""


def check_tensor(x):
    if type(x).__name__ != "Tensor":
        raise TypeError("x must be a <torch.Tensor>")
'''


def test_a_problem_with_helpers_shows_them_read_only_under_the_editor(
    make_server: Callable[..., Server], tmp_path: Path
) -> None:
    problems = copy_problems(tmp_path / "problems")
    (problems / "add_one" / "helpers.py").write_text(ADD_ONE_HELPERS)
    text = make_server(problems_dir=problems).client.get("/problems/add_one").text
    panel = text[text.index('<details class="helpers-panel"') : text.index("</details>", text.index("helpers-panel"))]
    assert "helpers.py (provided, read-only)" in panel
    assert '<div class="highlight">' in panel and "check_tensor" in panel  # highlighted by the server
    assert "&lt;torch.Tensor&gt;" in panel and "<torch.Tensor>" not in panel  # the source is escaped, not markup
    # Under the editor, after the run bar: Esc then Tab leads from the editor to Run tests first.
    assert text.index('id="editor"') < text.index('id="run-tests"') < text.index('id="helpers-panel"')
    assert "<textarea" not in panel and "contenteditable" not in panel  # shown, never an editor


def test_the_api_gives_a_problems_helpers_source(make_server: Callable[..., Server], tmp_path: Path) -> None:
    problems = copy_problems(tmp_path / "problems")
    (problems / "add_one" / "helpers.py").write_text(ADD_ONE_HELPERS)
    detail = make_server(problems_dir=problems).client.get("/api/problems/add_one").json()
    assert detail["helpers"] == ADD_ONE_HELPERS


def test_a_problem_without_helpers_has_no_helpers_panel(client: TestClient) -> None:
    assert "helpers-panel" not in client.get("/problems/add_one").text


def test_the_api_exposes_only_public_problem_parts(client: TestClient) -> None:
    problems = client.get("/api/problems").json()
    assert [p["slug"] for p in problems] == ["add_one"]
    assert problems[0]["check_count"] == 3 and problems[0]["functions"][0]["signature"] == "add_one(x)"
    detail = client.get("/api/problems/add_one")
    assert detail.status_code == 200
    body = detail.json()
    assert set(body) == {"slug", "title", "summary", "difficulty", "tags", "functions", "check_count",
                         "statement", "starter", "helpers", "scratch"}
    assert body["helpers"] == ""  # add_one has no helpers.py
    assert "add_one(x)" in body["scratch"]  # the "Try it" example the page shows, made from the function list
    assert "raise NotImplementedError" in body["starter"]
    for forbidden in (NOTES_SENTINEL, "def add_one(x):\n    if not isinstance", "@check"):
        assert forbidden not in detail.text
        assert forbidden not in client.get("/api/problems").text


@pytest.mark.parametrize(
    "path",
    [
        "/static/../tests/app/fixtures/problems/add_one/notes.md",
        "/static/%2e%2e/tests/app/fixtures/problems/add_one/notes.md",
        "/static/..%2f..%2fproblems/moco/notes.md",
        "/static/dist/../../problems/moco/notes.md",
        "/problems/add_one/notes.md",
        "/api/problems/add_one/notes",
    ],
)
def test_notes_are_not_reachable_through_static_files_or_the_api(client: TestClient, path: str) -> None:
    response = client.get(path)
    assert response.status_code in (403, 404)
    assert NOTES_SENTINEL not in response.text


def test_security_headers_on_pages_api_and_errors(client: TestClient) -> None:
    for path in ("/", "/api/problems", "/nope", "/healthz"):
        headers = client.get(path).headers
        assert headers["content-security-policy"] == CONTENT_SECURITY_POLICY
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "same-origin"
    assert "script-src 'self';" in CONTENT_SECURITY_POLICY
    assert "style-src 'self' 'unsafe-inline';" in CONTENT_SECURITY_POLICY


def test_static_bundle_is_served(client: TestClient) -> None:
    if not Path("static/dist/app.js").is_file():
        if os.environ.get("CI") == "true":  # `make test` builds the bundle: missing there is a failure
            pytest.fail("the front-end bundle static/dist/app.js is missing: run `npm run build`")
        pytest.skip("the front-end bundle is not built (npm run build)")
    response = client.get("/static/dist/app.js")
    assert response.status_code == 200 and "javascript" in response.headers["content-type"]


def test_healthz_reports_sandbox_and_queue(client: TestClient, sandbox_available: bool) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["sandbox"] == ("bubblewrap" if sandbox_available else "none")
    assert body["queue_depth"] == 0 and body["in_flight"] == 0 and body["problems"] == 1
    assert "set-cookie" not in response.headers
    assert client.head("/healthz").status_code == 200


def test_openapi_documents_the_api(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    assert "/api/problems/{slug}/submissions" in schema["paths"]
    assert "/api/submissions/{submission_id}/events" in schema["paths"]
    assert "/problems/{slug}" not in schema["paths"]  # pages are not API
    assert client.get("/docs").status_code == 200


def test_an_invalid_problem_folder_is_skipped_and_logged(
    make_server: Callable[..., Server], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    problems = copy_problems(tmp_path / "problems")
    broken = problems / "broken"
    broken.mkdir()
    (broken / "problem.toml").write_text('slug = "broken"\ntitle = ""\n')
    with caplog.at_level(logging.ERROR, logger="app.catalog"):
        server = make_server(problems_dir=problems)
    assert "problem folder 'broken' skipped" in caplog.text
    page = server.client.get("/")
    assert page.status_code == 200 and "Add one" in page.text
    assert server.client.get("/problems/broken").status_code == 404
    assert [p["slug"] for p in server.client.get("/healthz").json()["invalid_problems"]] == ["broken"]


def test_no_problems_at_all_still_serves_the_index(
    make_server: Callable[..., Server], tmp_path: Path
) -> None:
    server = make_server(problems_dir=tmp_path / "missing")
    assert server.client.get("/").status_code == 200
    assert server.client.get("/api/problems").json() == []


def test_unsafe_mode_shows_the_banner(make_server: Callable[..., Server]) -> None:
    server = make_server(unsafe_no_sandbox=True)
    assert "Submissions run WITHOUT a sandbox" in server.client.get("/").text


def test_api_docs_are_served_from_the_app_without_a_cdn(client: TestClient) -> None:
    page = client.get("/docs")
    assert page.status_code == 200
    assert "/static/dist/swagger/swagger-ui-bundle.js" in page.text
    assert "http" not in page.text.replace("http-equiv", "")
    assert "script-src 'self';" in page.headers["content-security-policy"]
    assert client.get("/static/dist/swagger/swagger-init.js").status_code == 200
    assert client.get("/openapi.json").json()["info"]["title"] == "PaperLab"
