"""Protecting the service: size limits, one run in flight, rate limits, cross-site writes, bad requests."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.app.app_support import CORRECT, WRONG, HeldGrader, TestClient, held_backend, run, submit, wait_for_verdict
from tests.app.conftest import Server


def test_code_over_the_size_limit_gets_413_with_a_clear_message(make_server: Callable[..., Server]) -> None:
    client = make_server(max_code_bytes=1_000).client
    response = submit(client, "#" * 1_001)
    assert response.status_code == 413
    detail = response.json()["detail"]
    assert detail.startswith("Your code is 1,001 bytes; submissions may be at most 1,000 bytes")
    assert client.get("/api/problems/add_one/submissions").json() == []  # nothing stored
    assert submit(client, "#" * 1_000).status_code == 202


def test_multibyte_code_is_measured_in_utf8_bytes(make_server: Callable[..., Server]) -> None:
    client = make_server(max_code_bytes=1_000).client
    assert submit(client, "é" * 501).status_code == 413  # 1,002 bytes, 501 characters


def test_a_huge_body_is_refused_before_it_is_read(make_server: Callable[..., Server]) -> None:
    client = make_server(max_code_bytes=1_000).client
    response = client.post(
        "/api/problems/add_one/submissions",
        content=b'{"code": "' + b"x" * 20_000 + b'"}',
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 413
    assert "at most 1,000 bytes of code" in response.json()["detail"]


def test_one_submission_in_flight_per_learner(make_server: Callable[..., Server]) -> None:
    grader = HeldGrader()
    server = make_server(backend_factory=held_backend(grader))
    first = submit(server.client, CORRECT)
    assert first.status_code == 202
    second = submit(server.client, CORRECT)
    assert second.status_code == 429
    assert int(second.headers["retry-after"]) >= 1
    assert "still being graded" in second.json()["detail"]
    assert submit(server.learner(), CORRECT).status_code == 202  # other learners are not held up
    grader.release.set()
    wait_for_verdict(server.client, first.json()["id"])
    assert submit(server.client, CORRECT).status_code == 202


def test_per_learner_rate_limit(make_server: Callable[..., Server]) -> None:
    server = make_server(rate_limit_per_minute=2)
    run(server.client, WRONG)
    run(server.client, WRONG)
    refused = submit(server.client, CORRECT)
    assert refused.status_code == 429
    assert 1 <= int(refused.headers["retry-after"]) <= 60
    assert "at most 2 times a minute" in refused.json()["detail"]
    assert len(server.client.get("/api/problems/add_one/submissions").json()) == 2
    assert submit(server.learner(), CORRECT).status_code == 202


def test_a_full_queue_answers_503_and_keeps_nothing(make_server: Callable[..., Server]) -> None:
    grader = HeldGrader()
    server = make_server(backend_factory=held_backend(grader), grading_concurrency=1, queue_limit=1)
    assert submit(server.learner(), CORRECT).status_code == 202  # being graded (held)
    assert grader.started.wait(10)
    assert submit(server.learner(), CORRECT).status_code == 202  # waiting in the queue
    refused = submit(server.client, CORRECT)
    assert refused.status_code == 503
    assert refused.headers["retry-after"] == "5"
    assert "queue is full" in refused.json()["detail"]
    assert server.client.get("/api/problems/add_one/submissions").json() == []
    grader.release.set()


def test_no_sandbox_means_503_with_the_reason(make_server: Callable[..., Server]) -> None:
    from grader.sandbox import SandboxUnavailable

    class BrokenPool:
        sandbox = "bubblewrap"

        def start(self) -> None:
            raise SandboxUnavailable("bubblewrap cannot create namespaces here")

        def close(self) -> None:
            pass

    server = make_server(backend_factory=held_backend(HeldGrader(), pool=BrokenPool()))
    refused = submit(server.client, CORRECT)
    assert refused.status_code == 503
    assert "bubblewrap cannot create namespaces here" in refused.json()["detail"]
    health = server.client.get("/healthz")
    assert health.status_code == 503
    assert health.json()["status"] == "unavailable" and "namespaces" in health.json()["reason"]
    assert server.client.get("/problems/add_one").status_code == 200  # reading still works


@pytest.mark.parametrize(
    "headers",
    [
        pytest.param({"origin": "https://evil.example"}, id="foreign-origin"),
        pytest.param({"origin": "null"}, id="null-origin"),
        pytest.param({"sec-fetch-site": "cross-site"}, id="sec-fetch-site-cross-site"),
        pytest.param({"sec-fetch-site": "same-site"}, id="sec-fetch-site-same-site"),
        pytest.param({"origin": "http://testserver", "sec-fetch-site": "cross-site"}, id="both-one-bad"),
    ],
)
def test_cross_site_posts_are_refused(client: TestClient, headers: dict[str, str]) -> None:
    response = submit(client, CORRECT, headers=headers)
    assert response.status_code == 403
    assert "Cross-site request refused" in response.json()["detail"]
    assert client.get("/api/problems/add_one/submissions").json() == []


@pytest.mark.parametrize(
    "headers",
    [
        pytest.param({}, id="no-origin-headers"),
        pytest.param({"origin": "http://testserver"}, id="same-origin"),
        pytest.param(
            {"sec-fetch-site": "same-origin", "origin": "http://testserver"}, id="browser-same-origin"
        ),
    ],
)
def test_same_site_and_scripted_posts_work(client: TestClient, headers: dict[str, str]) -> None:
    assert submit(client, CORRECT, headers=headers).status_code == 202


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        pytest.param(b'{"code": ', "not valid JSON", id="truncated-json"),
        pytest.param(b"code=1", "not valid JSON", id="form-data"),
        pytest.param(b'{"code": 5}', "code: Input should be a valid string", id="wrong-type"),
        pytest.param(b"{}", "code: Field required", id="missing-code"),
        pytest.param(b"[]", "Invalid request", id="not-an-object"),
    ],
)
def test_malformed_bodies_get_422_with_a_human_detail(client: TestClient, body: bytes, fragment: str) -> None:
    response = client.post(
        "/api/problems/add_one/submissions", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == 422
    detail = response.json()["detail"]
    assert isinstance(detail, str) and fragment in detail


@pytest.mark.parametrize(
    ("method", "path"),
    [
        pytest.param("GET", "/api/problems/nope", id="problem"),
        pytest.param("GET", "/api/problems/nope/submissions", id="problem-submissions"),
        pytest.param("POST", "/api/problems/nope/submissions", id="submit-to-unknown"),
        pytest.param("GET", "/api/submissions/00000000-0000-0000-0000-000000000000", id="submission"),
        pytest.param("GET", "/api/submissions/not-a-uuid/events", id="events"),
        pytest.param("GET", "/api/nothing-here", id="route"),
    ],
)
def test_unknown_things_get_404_json(client: TestClient, method: str, path: str) -> None:
    response = client.request(method, path, json={"code": CORRECT} if method == "POST" else None)
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/json"
    assert response.json()["detail"]


@pytest.mark.parametrize(
    "path", ["/problems/nope", "/problems/nope/notes", "/problems/nope/history", "/submissions/nope", "/nope"]
)
def test_unknown_pages_get_the_404_error_page(client: TestClient, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("text/html")
    assert "404" in response.text


def test_wrong_method_is_4xx_not_500(client: TestClient) -> None:
    assert client.delete("/api/problems/add_one/submissions").status_code == 405


def test_an_unexpected_error_is_a_500_in_our_format_and_still_raised(server: Server) -> None:
    def explode() -> None:
        raise RuntimeError("boom")

    server.app.add_api_route("/api/explode", explode)
    server.app.add_api_route("/explode", explode)
    with pytest.raises(RuntimeError, match="boom"):  # re-raised: the server logs it, nothing is swallowed
        server.client.get("/api/explode")
    quiet = TestClient(server.app, raise_server_exceptions=False)
    api = quiet.get("/api/explode")
    assert api.status_code == 500 and "has been logged" in api.json()["detail"]
    page = quiet.get("/explode")
    assert page.status_code == 500 and "text/html" in page.headers["content-type"] and "500" in page.text


@pytest.mark.parametrize(
    ("escaped", "position"),
    [
        pytest.param("\\ud800", "line 2, column 13", id="lone-high-surrogate"),
        pytest.param("\\udfff", "line 2, column 13", id="lone-low-surrogate"),
        pytest.param("\\ude00\\ud83d", "line 2, column 13", id="pair-in-the-wrong-order"),
    ],
)
def test_code_that_is_not_valid_unicode_gets_422_and_is_not_stored(
    client: TestClient, escaped: str, position: str
) -> None:
    body = '{"code": "def add_one(x):\\n    return \'' + escaped + '\'\\n"}'
    response = client.post(
        "/api/problems/add_one/submissions", content=body.encode(), headers={"content-type": "application/json"}
    )
    assert response.status_code == 422
    detail = response.json()["detail"]
    assert "not valid Unicode" in detail and position in detail
    assert client.get("/api/problems/add_one/submissions").json() == []


def test_a_surrogate_pair_is_an_ordinary_character(client: TestClient) -> None:
    body = '{"code": "import torch\\n\\n\\ndef add_one(x):\\n    return x + 1  # \\ud83d\\ude00\\n"}'
    response = client.post(
        "/api/problems/add_one/submissions", content=body.encode(), headers={"content-type": "application/json"}
    )
    assert response.status_code == 202
